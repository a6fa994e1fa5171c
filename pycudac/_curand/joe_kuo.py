"""Joe and Kuo's Sobol direction numbers, the first 1024 dimensions of their
set new-joe-kuo-6.21201 (S. Joe and F. Y. Kuo, "Constructing Sobol sequences
with better two-dimensional projections", SIAM J. Sci. Comput. 30, 2635-2654,
2008; https://web.maths.unsw.edu.au/~fkuo/sobol/), packed into bits.

Dimension 1 is van der Corput's (every m_k = 1) and is not stored. For each
dimension d = 2..1024, in order, the stream holds a (the primitive
polynomial's inner coefficients, s - 1 bits) and then m_1..m_s (each m_k is
odd and below 2**k, so m_k >> 1 in k - 1 bits), least significant bit
first. The degrees s are not stored: the table lists every primitive
polynomial of degree 1, then every one of degree 2, ..., in increasing a,
so degree s covers phi(2**s - 1) / s consecutive dimensions.

rows() gives (s, a, (m_1, ..., m_s)) for dimensions 2..1024; the tests check
that each polynomial is primitive, and that the order is as described.

The numbers are Joe and Kuo's, under their licence:

    Copyright (c) 2008, Frances Y. Kuo and Stephen Joe
    All rights reserved.

    Redistribution and use in source and binary forms, with or without
    modification, are permitted provided that the following conditions are met:

        * Redistributions of source code must retain the above copyright
          notice, this list of conditions and the following disclaimer.

        * Redistributions in binary form must reproduce the above copyright
          notice, this list of conditions and the following disclaimer in the
          documentation and/or other materials provided with the distribution.

        * Neither the names of the copyright holders nor the names of the
          University of New South Wales and the University of Waikato
          and its contributors may be used to endorse or promote products derived
          from this software without specific prior written permission.

    THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS ``AS IS'' AND ANY
    EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
    WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
    DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDERS BE LIABLE FOR ANY
    DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES
    (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES;
    LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND
    ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
    (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
    SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""
import base64
import functools

DIMENSIONS = 1024

_BITS = (
    "FxGFtVBIlJybS0Aj5dWHcXDDVcG48cRH2NxYptIH756ZuO2IhzzxQ0pgmhNTrKeo/VOxST2uCSN+"
    "NiQAvCx1pciOSusFm/pYR+REtHhTCw3cA9/vpnnMn2JDjvwNpq/03z+YJa1i8k1p15Hw8rWgltjD"
    "DzzJgiyBmUamcpy4FyDLHS5HzpHxvbk3qEI9GB5GtnLY84dIGs2j/r1aL1XVhAiVo8v63rAGsAki"
    "EBDORbBqEfF5ZvkZaKGPtsXCkoPntS98WmrwS/N9SoluN8ie+52yQ//ZGFA+Mt9pBTiEqvb5kkpu"
    "De4UGkWhQQNBUvYOsN9+VVANlAVb8hvjP+81yGdbP2cKpP5nh8btk/KQbSxqfVuvB4Ex0Kx8OvB8"
    "AJGYTkXPV4rBte+P8di0p6uYkQwEjq+EKQk/DE+d6BTaCHc6dedlh61l4ayTA2us9UfRtdIK2lZi"
    "608JeeK5D5mnAf6b55xYB8IAQBLZe5xfdQzx2k42NXjNvUhcwq7jG7WpQ1kuFjLwTuY/c8irpm7Q"
    "JlNs7HO2BccX32wN/O/0VAlLx9a/uYR6SQRyEVL8rVwDS+b3H5o3IaOx8tlWWpDpDvDaPTLuNESI"
    "AO6NKvtA+ZQKhPl/VM4UFzFtBhd8KmIyRXDimfiaI954k/oxhwWf7spO55nJJ7CLCH+8c98LWp2h"
    "kMnIUQPGqP4rcyZURVKe+1bbiZgO46EzPKwnTA3NshYfisRs7ZyMrPrMtgQgubWO5aFxqaMwFa9b"
    "23VybCpVZaiSL2Nuy6FxnNBKWM6FNeW4T7DTDDUpbxP6ewTN7vtw6SEg/P3kmsq5B1NC0cN7mSOh"
    "MASnK7gDSYx1+unttBsd/DkLQ3DIu6Bc+yBxkjL+DbWxtNT6uxfoeDyFdcAXY8FPnTcha3tJNJuU"
    "9YkzaV14IyXUAGBhRqDl3Vlar3EMVVv7tlhRUfpY+93KT6vf0It1G86Av7njQ97l9NYHWYNKJHNc"
    "cp4F7Olx+qMlS0G+pLTpD1LLlzWpGgRmixebsc6Xd8OvErF5V5P/15XvKa23HFNvvCZfG40AJE+b"
    "qTTN9NjXHPnbtUJ7U2evSHye3z565S+18ccmHDHmswLsjfEeTgh1FnhjrdSdeGNUwA+y5Vlq5LKA"
    "LsQMky0yO0IAPlx7YW8zBhsh4bZmc7QMaofD5QKbQRw+pnxEt1fBPYwVLTMegQ6MyCIPWI3zLCgh"
    "NcDnlXtde2JnJ/yLet9PRWDEBke/QAALM4ZDGRod2xkm456NY3wNNJw9lZBtlHBwKKa/nvvYWufQ"
    "x5U7Le971IE2s5eFMbTV4xehIQvUumvIQXWUO72sPJGZgdBYd/WDJMBKwm0IXGlKlHdZYpMi9p1c"
    "spFJ+1N+PTEgXg3tYjGL4tiqhqNFhCHlIdYyrNsAhIpkbicrOum/lca5gZiKO2Auk6u38Te1X11+"
    "EsrIAzyWv9THIVd57DeCwbH+3xAsGB6D71DGJZJKrua+qShB5H5izbtGZikOHIubP5ta5oYx+ziJ"
    "M6VZ8EUMdqwuqIw86tLyRCxAMMVGw/aJ6uCm5q0rAiSW3qsblPwZCKiJF6VapZTQS0g2oIgSW6FA"
    "a07AKS4URQ4xXfy0rh2SwlLcWV6mzzB5vbE3i4p8bWKSWpnvSqXyFAPUj5xdMPzJkwLCeHm5K1Sg"
    "8QXFLFgTKTLkO82hFptTM8jGizJVsKlU8DHdmjwGVWH8Y6ke4x2zYqtuoJFGiGhFUZD7sb1KVgvX"
    "r8Yw7G76Ft2Er/yVhYSuqBPyNuk47F2Mdb8fNpFsvHZrGE24fF599Vuj2ndfPwJrNSAT/GUxEWbf"
    "wxEL/cpHzI/zMKdP7JOZmWyp8jcX/zNSG/8WWsEVaBSlOvbpV9vSlGSBrIptF6wJtlRXJBoJXsOZ"
    "mX7T7BjKJqLbLn+Y9L9t9E/M6Kvn69s/j73ipkppuJvFeO67xVRxi7Iy8gAq5OTAAqCggNRCyjFp"
    "kEqvvF+uq42oSfrENm4XSJaAYZT29k5P3mnHueJP3tEERIp6IaO9/FcikBfZkHt2HTDFdfqz+brZ"
    "5OHyH+72laOsgzEwlQp81pDu/9x4GqhCJrkQ56FlcMyuTFIlHPGg8TCZ6vT8aUVETJeKdXU9jFAG"
    "TQjzer0aY6ItzQoGTjkyg3PhyJwJhbSwXhb8iHoR2avvv3wPdlryxFFwf6g83yRdhcA4+FjMSfyp"
    "MUW0xkGWTY8IDUII1y/jT9pxiIB/Y9ovcuaR95vMZDk5D8rr3aQ5aflR7wy6UlPlByfCDIMVJ/Wl"
    "PIvp1p9OlJYzz0TA7p5s1ZueWbDOQC1QtXxVOhuHoqH8oPJKbx2taEIo4SWVTeoN6N6ECOW3NKGl"
    "ai8IYQBqm4sYOFX6ftTohEJzSIWgqoBAUHUD9h1WMYrmagmUDLFyCDLxVWUzb91Xqty7h23hms2+"
    "bZDb8kjWRR2xA1UH/WwIf0WQaAyRWqUowJkcJGC3RFsb2iwtV29bjtc3FdrX5PIK3P4rm7nXXWOU"
    "Tc409bQ7FZGh4sgrhFc4+xuj1no87wbwI5Goalrf+qZWN4mhncD0I9iwZml4hw2QrYu7T40Qnyxo"
    "Ecr1bCd+vxroBv76VOwDfOhQ/YLJeBINYfdzDs+xO35/kMtJfWQ+hUZ20g1hySfEDMdHDT+VO9VS"
    "c4fVTi9392zRfsrVcR44gsFksPv0/CUsmBY88/F5quC45iF8BbSuus4GP3c7aU1tlrzyRMvT2Jgj"
    "b9jY+qilhFyum2FOXY8xGQ+XWQbPfkbWzAFDFrvtDG0pSPTczJucQaOSlzXCt9nbMYGF165whnP9"
    "SVZ+GePO+CRDvnIhzI/NNPNuzeabS71OzL2F411H627C+/na1q53dhGxfYu2PYFw7vIRxKc7cNVC"
    "TJl/LHikMeuIRz4/8oqUckCROqblk+FTD7BRP82vvXB5VyUhppfpy6ZwKqhY/0S3wnLPmNG+qTS6"
    "KljjYv6ZME/gfd0j/Vai0jy3j6H8Dx875SJCSvo7Ua5waMpwKfCi81DHy3TznAZB3LnqC5MLXfRg"
    "X1gHub1hVUAfrKPlaXbkOcXOBPY6lRgKfSc/0OAqXto/4CkERh36uTrbou3MbhmE27xdoUTQ8z6P"
    "UE9qbTDqtSs9Eo2VJjFGTLwkdiIRIFmd/1PEjFNk5/rXn67BAb+KWnmG+A8j5ORggXsaSJMDSwp3"
    "LWiL+bdnoVk+E8a06ur3Mn+REtkYXfPkITAF/ZYdmFufEBObGpa8I7QTam0kMTpgg4wSDzTmir/q"
    "upG1Od7LCqpEQTyiFwrfH0hPsfNMQHb2cwJgR3DLiSC/TIyz7CErP0FUWFRegM8LlCtqwF3kV1wy"
    "aoGF/oMM8j1cVbqyvAhJU2UeoCh5GJfiU58d2guRHLM/E0IQFrSJP2TUQdLK1I+9tOWMP6f2MgHG"
    "N9afqcXjEkliOFTANLjX+jGVxBL/4AYOELnCtNSfLuYsBs0xk5uoVx6denDfvKeaGWWo07fXvVu7"
    "aVL/gLDvfl0Y1zcHwlAhM2fx8bom6huC5nZOE29d3fpEUqmkVLBy4re4qElDicaOwH3kGXVZGQpF"
    "gZvfqqMw7Q1TPkZOkqck7AF5Hew9S6OVNDS1vGRiop1ME6V8GfsXWT/yh0pTH/I1uVttxlGHByQK"
    "fVGiT5gqRnIJbQcgf6FkdSm3qCUfrBYprrqWZwbkNRO21lWsNEql90KatLtAWBiw/WFu8axXtD2L"
    "rG5tAxcEGxp9sJF+xMtkZIS+wrbHjHEfqkxfMqAtFyTRNJZZkiQ5n6IWBSk1SL7Ad7y2SjS9ho6N"
    "SvwMHZit4vqax2eQwBjeYNzSX6vGfWCwM6GTp+TbLOp8+0J0qZ0apTGJb6vrbi5h5wP4heIq4q2a"
    "Eawv9Tsxb72ymQo+8ihldrPXGkEVT9xbWNv3lPaFf9gUij0B3078RUW/7UNHKyR/dobPyWwC04VT"
    "m9o4Tb1+KCNxJOYvukO7eZol+ojSWrOj0yLGRdm9hHJda6307vi+6UyIJ/H0VyM9Qwyji1Qr4NLk"
    "J1mKuTHZZ6GgjLMVIq13TzpZlvOqORlqPLtO9DJZ8HRcAFrwxmIWU+3OHIV6UYnN6Dn2btRfgFe8"
    "SaTeHg+V7tEKOUeBpr96cVv9OecLZC9r2K662vPUbG7PaRw6/7qhkt6ss9Esuj5U9HmG5pTvyDWO"
    "jBIf5NR7vbyxSNOFZA0t2/dXrYt6QvN2dBNe5T9aSXhWBrfkL36F6/UD282fbFkDejXoAm/csSH7"
    "rrCNyhsRH5fKtSZ2w5Lpxr+oa/fHkjtj7aq8GIq32szxM6I/GLdrkcuKIL2gHKaU+XR5s/4591kn"
    "6/nuxB163C0PXangrdsvOQ9nfc47vb90GXUxnjIdC5j9MzGs+FGmUwSTaV7W/49cd7tg6i3Babl0"
    "6JEnvOTBu2z0BC2ciQVzXPFPDENDHHJeQ/unE9DrxU/e1RDe2VAYmELK70hlh+ykZwt1mUOYy5WW"
    "1L8IMfOCzeYvMPCxQ+ZntkqRPZh1ys4sqM0VY+MtfnueNZ36l4qEM6weNAyPC8+BuiVAkX7KXdCR"
    "aFxrI9ROkQrkBKDzzaAa0vPIJCv9QKlWGw0KOR7YCsKl60MOuQXbACoGhL1k2BRUS4smArHhUWJI"
    "Vzyfc1S4pwupqJpGp9EMr1igMroisxDw4urNLbDud0fZi9wnjp7WsJlyeJRTadMHWi2vFjXzC8wW"
    "zZ78yP1yvkVAxBNU6KHb0SWvKxQyFZqYjPuoxASIT6k5i4g3boQQMDwDRrLxKXwLRKgUte5NPk4c"
    "FJ7UJLVY3LfkmrgfuF5jzXxhgnlULNxuO7oP1VqDxKjB0LH32wgsATyPu2Ujf+gOP4DEHGLmDQBq"
    "mpbF+jr9jlRNwDHRguzAeflp2aIBCG/pNFU8w0O0XwrUYjSpdgiqafz8MjA3fzfdepj3GvHcQCjQ"
    "jsR0VgWWtVQE5MBqsvK4J2bvtxEEf6wGKo72EAhPT0DKoXvvkEgGokJKQfsXXgGHQbAoY3YFGgZ5"
    "s6Jz6VpxVRdUowg7p8QUdTDBXiCS2MjzqU/E7vqFAfmpG9T6OpKAKUsG+/4kHtx5HgZdOhxEyzx9"
    "7evw/l3KeUBIQ1WJGOpoc5UYArdarf0XxlNEWa8IA6my3SGvbMGrCCUURpOj5LD5/3aJl/CrUcJr"
    "zgrKoCR1AuL54gx9vI5oDhEKBRn8+p0DKfur7iygSKUXZcjjnphKtdBsWeYuTcdqGOPzgoPd0Bq9"
    "Z5wcV0MM03fUrMeQQfkszjJcaIgTAhcBorjDznCP9pAGjrLMjm59g/NJZF9wkx0qsQgOAJMFDqyz"
    "pagj4TiEIh/79Ql8y9FO5vBQpbMCcB7Dm2O+g+DWeRbuGec0ohcPGiuek57oLHwtOT4kFfceSvoo"
    "Jy6G/YAd4+sM82jrG/cwBBoDGbLC+qX6BiURfxu4BxJ1O0E980Y8A8aEqF9UrERUHlG8LEZUjVJg"
    "e3WHhI4uBSVOVXv6It8SghbqZUer8beekku8zu8uOhKXwmf9PKHk2VKy9IOyFzD/ROSRXJjUzNdr"
    "6E8UVK5BDI7KLNp2wlKU83UYjGXhAVsxTYH+YOpzQu5rFcJkhZXjqhbmyXQjyPsVxOCNZfP2Wh6/"
    "sFlg4IlZAHRyb2tcd0GjKjF//YlUIZPsRWKH2qcxK7IgJdUXn/ZW+T6MqkHSsGCwrZW02OWzRPYH"
    "k6EQ7AKhAGS4EfVXxuACMWa8J20UiTcaUaWFdWVFCtCyjmrgltfJfUxP+6XbrKHaLrkcHnwPoOne"
    "BjW6YKtJZ27hG4obE+q5j2t4UqGvom/UMJk6qOA+JuzHw+G8YByiwCD9AUwaB3/tUN3lgRnZHqUc"
    "CyXcQCSFAeP6enQkpQIY9BYtnbUH1OGg8jchwYBJ5G5gR+VlftMBFeIZiLIdKxDBW3c/VeTzRnec"
    "m5KtYbKa5y2i8PG4RUTtSgoFKrnbx9OSIvnRv2ZFZ88fVoz1CHlvp/AOcIHAYpHpwnnItofVCZKO"
    "mhZq1hQtoBg8yB6cFzqMpR6cXiAhUu2cSAeVPcguLoX4bgE8aSjnBBtoHsLZQ2ljSMJQ1X+iyBu7"
    "eOiswtNyybQimnMva30SC+bdEIy0i2ViaqgC1cbxNhJr3E4Jhh5saXX/yErknWrTgjL/LREk2HsT"
    "RI80q11mYJN0Ktfvpjj3PdNRTkLijWQCloX8k5hrCVMRH+OiFe5bPP8lEfnUORxX+hLqIZi0mW74"
    "bxv5zILqY5Laj35on/Uhb7aVyemjiKJklPbIdBwnL4cpXG9hNO1HJqH8JsKjDj9AX/6xi3JSUtxJ"
    "fauKokk4iqRXs1VOBpJLjA8pLz2rwj90Rp5qpqXwTz/c8VqoGlqknAKjjmIceab93WGlyrvZIGCA"
    "kw/Am6gq3UKW8qyBKxahS6xoYBzDn10Thg03uLLZcb+asuNCkH3tSi3JTreO9i24Gz8scYfdKR9j"
    "6s17RLG8sHraw6xE7iZzyjJ18QPOY/o/LXAxy3KYf9I9BGP6oPAsEt0VkJG/4y+G8rWcAFeiul1h"
    "JQPV3hKnfeMOUvsMdSyKizUfGnVjfNS/j30uMMlFZPBsXCu5xrrMrQw6DWFWioki9eKuUZJuEkmg"
    "6hAHjMftsMRNKGFK9SYwnOF4GmcAlgUVP8LIT5qBOdyFq6wBFhMohaVVmktioR59TIrU6a6s7DZX"
    "lVsyIGHWzCzOg+DRSco8VNnjdYo2A3dwLFMH69oVbxxr6e/SDD8bPKttGlRPobwzr/Jn+8r6uKTl"
    "d8+0DZRL8C+Oc+B2QxPYWq1aNXVuPfcmjYVV8mTa5HsDOcA0P/v+YPcU3HTkDtZYzku7Stcn+B2V"
    "W4NyygBJD37jKE54zeUnvxYP0zFyThI2HY4CzJIHo7KPY92kwwdfcnY7mZH8ekPrz+lzzNPO+Dol"
    "DhvtaPGfrJby2kU5qhKb6akQpd/bVefMxHl9W+zxFrPdpwO6iiO730nZf4CvDlgIgbEM2QnuWuY6"
    "uOaWXw5ZL0ziT+2U60zN8V/Ge+gyuSO5qHgIrcclOz7zjjbesuWCboEJ5Bg86my0J1zE+N74DfL8"
    "jFzpvlmEw9Uy0APbN+CyHSGgf9pxjwqvRi6D16e6MzA+xn4MbMWIAWhObvkYAFQTolZX1rSM78OO"
    "J3gMsqJVRtLfj126OCOlmZpDIoQ/aq+EQLmIXDjm8QBNZwMK5orFhS2nDDSTPH2BGD/sP2M8UPd7"
    "QLZCN+mtiBtBfjBAa5DHqC4qOgZVqMEBxMhUIXVIHbT1hcldoD6ol917kLQkkHok8Hvs7iVC8VX/"
    "G4Lo4CwK6QzBrGtIJZ9wuVgcOlSsVBFnQZnS7YkKkce8oxzcvUttxl1Fg7HfxSiztiuSsRUxvk9+"
    "hSeF4jM+X7QjPh9gdJzdaGaYEc+hR/ISGGdKuKdGzSVqjkIsgATQ0hsJXfHsgOrsqkoJcYT61L7d"
    "WBEC9KDT0RUuCXHj0A6tJNhHbW2VunY5Mkr+HiGZYm9B9K5LvEaMh9R7PRML0HxxSGcikh5Pn+hg"
    "KnNMR9BIpNz1rgWLYTwDTyUNcTQ3d3vz4dn7muQev4tEuVkfrMN+UqVFMDSYLylTrgJKrmfXweZm"
    "A2t2TynNUbBSby5oGYPuqgSnZfktRJ9OTr7uUjYOMHH+Higwk+BLuQSAU2pDHsleNTDhGKKYXvnR"
    "zJlXybSQ5PqinhCCVB0/E84d2L0caGyUn3xNEWBdcZHlNRUIzTY9JBP3uPmOkoUZ3oQjCdU/uxOF"
    "baOHU9yNqlTdzGoYirlOMaL+fhTnx4Eccz5d8+GJTEUIfZH2+lREU4FQtZlX91YE1KSd2UYwaC9b"
    "WnBQNZzf7ooq3VMGvUNVL+wMs9tchwy9EMVZxBmDwiph595k1HsXJm2UwGGo/6FRQRgxDRlv08RI"
    "hUkpOCQTPxEWWfFcNAVHecfiNt4x+h3clJ86QM6+boXv8YVTPv8f6BOmiSiyf0/ZhPkcyY7O13IB"
    "PjVbGQcWJ4WYZbdKFbxuZemPePtFV0FVng1jq7Fd9eXnNFa9A5qLh4LlwBMiYlVBAwQfThBlkOCu"
    "1ZkQEVI75poJO9BWm0lg7V/fA0yuel0Znp7TWEUuQ0a+eRXIu3+m1kZXfaQCliWi/17ANyT9H6RY"
    "PJBVcHEONsV5eWQl+/vUP+EPBMWNkrU1e0DcCBeXXShc1lVpEBhXziu0PLhZMSljcNiQ7iqbaWgZ"
    "b66gFrmFZ+rPpLX5ZsrRLbQZUsfaluxpZKOS0qc6TvRbAjSEDONIz/I/kXABQY2xEZB6OYy6yzUG"
    "2imH0m3zihI1F3Y3COdoVqs022tdPUIVRNkxxq2+bHaxfaT6s6Rns1qC7PXBHiOZBZBhnXTIV6oy"
    "wO6kumj5tuZfIyJ4Z0nFiTCr0YGNHm5ZrOxdMIrmEFaO6mOrWocXWWdWmGQvRpQACxhh0m1h08e6"
    "sNxfUoJH+IfNCGM9sncnnBcxIJb2KWzWmXY3qmuYGG1x+296LxynJYpjaAZWkna41Hu/d5FRik+E"
    "f6kt9r4aRnZ5Um00BU3jtKYrGcbID2ro9cO6vRVlYy568io1DWRM/5UVUpCAsjqIMethXiaf0LNF"
    "SNzBET2JmSmKcKWF3/LQl4lmoFVEg8I44nbG3JrNrIQOfXvlq8C7cLbBZKvJ6eZ+9VzNmZi49UXp"
    "ZwGyQF1nJJUDX0Fpa4E5jqH9vub7F4QEQZ7NjDZq7jdvQrfVfuBSGhe0qQ9fkj/H235poGDMwdvn"
    "df4oyqYpRpvL2wKBmlzSnWY8uwj/N/+/07yImn5LAwimVAEPw91qKwqUpGQ4/xYv4ax93rGTsXAU"
    "jyjEurZaY6w1JPAkSZASm++LlNft9pb+D3VsIp7UenZbankVwLRJIkHohDQg11en1eauFAoE+RBw"
    "Qs5q280EG0xgF/Vt0BJvjB4cRSjaFIrrL76l1kgb5ahKtGzZ/ibn7EkgAiQs4ncOnFBPyYmzHuse"
    "EpFw37lzdkF2bAxjscJRTmDIOlhS3CUqFDcoudEjF+p5oeCQ3FJTGXoHeinupHpyZjG8X+zJkxZ0"
    "T8uFoWah8PU01bbcLqdBEQ747t4ZMGfDnHKTDraj0wI2cldzZv4++GyQnGl+2NH9HHuLqmR50M/c"
    "SAc5ueIZsVHn2Bstnf9k1DmOFa1ZQex0gaSTYfnsdKFkWdUlmGPud4WC2mANWRe7yVwD8fUiL1pz"
    "nT6sRDSpP9NM5fN2TduRBNeXlxxdVt8JMEWcQ64GGSN1fievb7aZ10AV6/cJ3iVdF1+itS0tIEN4"
    "RcPYLj+WKQHjJ+IJRmbywnb7pWBBi1eL21RuUmNy+Dp+HjCeoAti5G77xQR6M6B59KYGtLStdun1"
    "rLkuw9Yt+e9ZpmfMW4H2AxMOkkOyHq5ocST8ee5vCvZ6IsIXeGXuEZIqkux1mz4030hX94dFtDdJ"
    "OvHlsa7F88Ypn6kU3gEBFnjaHi99Lrnob0Q9bgrgyvUdlj0n1mnJ0+0I2IerITbGCdadU4ifn8dS"
    "s3+KMURL5uJ+/KJoHzqZDphv4vxp1FWafd+Zh1Et9jceFPxAOPelK/XqXzBXgdalMKbeoPt/b1BG"
    "t1sY0aBr/wBqn2Zru5f8aZsiCujwcP+ZOGTn4mAzYE/8PEoJsBUMWnGBhdsW42Vum0A1PQnK5am5"
    "7tZikoOoJ/hKDjXxL5bfg8LO4CXcqhMxttBnCsODDe8Zi+L6xyPM+w8KSsOg3zU9bSxrSBjoMN2A"
    "S0cQLjZBYRPLqlXG1S8ALqaFREhbkrdezKY53hdSPwSwcex1a43oYAhgh+nCKvV7WTykITq01tz4"
    "oBd4786Gyzs9YFs+xxIyrhzCG4Bp+8/EAU9gd8jIBXuJh1/YwbQLYm7QtadfA8v64XeIRQ553gRX"
    "1kMHkCaSh60ott/7yeBQo3gmfVguN2mgCyeaIlH2Vwlv88wdjv+Ku1HgnE1yE69hVSwuhpWH2ONg"
    "j+veuJhMJYxCISN0gXf04nF5Ufum7kqNrRaNJcfQGMHsWFvYDDWuBxutywq4t00q29jwv4mgmcEq"
    "2IyLYyA87jTrbRX3N0eObSkmeTdOLO4MeDvuoluz6oe0HPbe8OiXik8fKNe3+JLW40DKuopn+5yl"
    "l22P+kGe13dtRjrPYD6Cf0YH67Ah+coK/3ise5eja4daWXMRpEfubP0YNzRSYXqQrEmWpORO90Mb"
    "hEN20rf/W7n67WCDE4l1eUGioYtje9lxJNowvmYgL6VzEliSlcknhsgscsHnakpqm2pVY0F/wiEN"
    "LNkZyVArNT3I65LKJE42aiMf4o4oXw2ULlmkTSW6XJGpVlJ6WiVI5KwRUuvbTDm/lg5K2ifS9ak+"
    "ZZQWfYNt+3/yikGVTv3I85exnOs+2laShi/unRt/M+4/Xfmw/N8ZsuLxO1uHpfkSfwSDbnNgz7qW"
    "4fbdTcJlfdEGVFvCA7VsCBeBD5eRc5m+XNaGss4QSg8O5pyt3rSMeHpxLKCYeqRoj4EwXz0P8GV6"
    "y+pi/D4/8zD2qDnHKcRDo9lLxLK6ZsP3VeBkoo+/k6CbYqZYXQvurciy03KKgj+PE2t88FrazQkC"
    "tXf51WNr+epXZ2DQ7kEG2FOtVMidKfHU/VJBSnK4N3g6haG2HCSrHn2M45lkDcEUgZdBQeappysu"
    "u1I2BECMkxyfv0J9+08vUDS3rnxeFPzkrERc6CtL+9mlAGHxvPLFVnb1J1GKwikGCTdBn0SgwyFZ"
    "1A0bM2PdaIMqsd9YSRjiW/+2E5rkctV4ExslCcaDaLpH46cPfEEuzGCiuMuqTGfbBONR1Yu+PSvo"
    "34FtQXMPNOqGRkO7m2/XbzHsKHDSpe/po7TMkNqj2xSBVrR+zYRQ3pAyies4rYxYWLrmSWoxlXlo"
    "kpBPo7YyqTaAMJz3j2/FNSClrcQfJqh4ssngsJdaZawWtAztPd5BZKrJ5zBlTnLAlfa3aRX1aP7Q"
    "M1LngTmnnjtx/XwrF9t1L58iBVklNlhnPcYPhlqYTHYCIvWHWQY96i141q8FFGJ9xiOpIQRG7Bcs"
    "6Ta6Aab2Skiy8nxtJO+8myr8ZlLSxQ5Hoc6LqrCK3/q0OkLmbniqC1rkXdh4cUc1gavi2AXhQdl3"
    "mTBatgq02U158Tsf+krmavS4kmLAxFNH/PCrdn3FL0dy4KFboLO+25Dg5G91g3Vl0Er6gA843lor"
    "F4xwa2g4roWSoeq/UGquOCUPOrCipCX2lbrul15LpWf1lj0P7AqGHBJxBowBCJ3EK38GuQ1B57Ey"
    "hEOvSfMnsThDq52g2r0CZ8LUwuOxDxhpALsF8B4UCumPf2YXLIcNPdWYcQAGifmwUOKW3Ki9qLqj"
    "p8SaZUixRJviKQ28F+vXKM0DmY9Ryip37NLypWRK0dDZGUGyjWIua5PT72v4FspalSqi0tSB9SAr"
    "LVtdEFFDT1IldRrnbEEe03wyuBlRM6Gz7VdCNrL8lBJ/LdIGJxzbP/bYXB7YTbsjbm9rDlaHATk5"
    "bZy+uEURVohFbWq1Jm69NQ7JIuTMYtlmnHoJgCKzlKuLafvkWuto5Pg3reGo7SR18bwu7oB9rhW3"
    "moBmDgzITqMezt0GnVZ/kNWzj99SgvsqKlBfQB33boof7nSPUm9Ehx4Dytu4/jTwjXMi9eOIKuR+"
    "u7PpPQOMd/0Ylqv1ecGoz84z8Hhwrp/DpWBPRAbGwQe6rh1NhN3BxUev8Og6K3IynI3bOc/DqYsi"
    "mI60SVFcQGfiLthcjQvuYN33q727340a0YlhY+LYfPFmHi67E+DRftxjyqvz/A43rHGD174zrxGR"
    "Wsf8BrBcMRm9BTxmj0PaGMhxtvhKSbE8nHk8roAg54vdoY0pJYoOd4yir2XtGnuT/k5IULS+/b4H"
    "pQIBsZPuvPvSGq5Y3fWwo5n28IugVtskQTqtzZTkL4cfH3BZtKvethnA+6nq1oSVlWkYnAAT51wB"
    "LdmtYE8NC/wZza+d1HtgLC06sMpi1kxXRuoYLD7BABg5/SsKhqmZYgafb1Onv1fSUNRxJYwBERFA"
    "jIgErsGz8FEuO5pg69qQBEvDgFYjhMXP5TwpJg6r/e8LnWFxjkZkUSx724325c0ZEk9gsb7iXEcp"
    "MfyVHtDFdQpgwoxRLM+YChnPWQks+DcSOiixZ1ys+WxlKD3DPlzDMRdEuw5TCRTtsZjHnFdCgGbi"
    "Od+iPx/3iIVjUGClnfNDgKx2a55Q+zNG//cMcrJ8D8GDFGbPZlrIRc7VQ4rU7gdUTSILwg580OW1"
    "1Tv7mDy3MVfaHGwaUNqfcrxZl5TSdanGNDnLVKJ4uoIWLsXokC3XkPe0VKVL7Xtowcy7RYAhrBBG"
    "KpkLM7jDQA8s80TAO77MEHU2MB+On3AWOzRnCpSyDDRbv6or03zPC/au8uqUCBZbs9ewFkuyZbug"
    "M1DOJUfBT6SG/04jjjnbF8PU5JXRDjsa6bwG2ox773VYu5jcM1FypZMbDU63ELbPerxwqk2gKBXl"
    "iD8L80NEQe7PlXeUA30mxHX3EwIH6LFStAVhlpC9MdE2qXzRpOMMsq3cNUqtkEcrIBAXW02ZTHW+"
    "KJ2GEigHV0rjLVi79EZ8+5088saJmg/T9iIX6DQkbcWt4ExD32MINandbgE3OW2iNovZwTAAud3o"
    "9K7cgpaeRWTZJkjUYgSarGt7uTvxM1fnVo0YSRRY8A2vX/0IEbHgFwyTkRKaNRQW6DEPN4OA6p7W"
    "Zd51CP9YBlSDkVrHwY6G1ninEIrib+28mDUAx7nEuUPLtSACGzLW5cu5jU/XU3p/XBlQVVzkdl9n"
    "Qj95Y8ckvoEUiJ3K2QaBHhpQ1r9WNhE68zdRNHTp02zZpVDlKYPY+7UbvGZ/FF4akJovAxSyn624"
    "IfzgoFT5bBWk9quljFSIj4qKA87a/AuHuHn3glVBbmzrCCzRBtHQOPLtsh3/WA7DSDSHXK/cti7k"
    "NNEcM36cVonbCd7EUNNuL91i3W67MXi0sW1JTvPbxY27FWyn5o6Ijvkxd1acZJFZiQz3KirdbEHJ"
    "MdgfKWv9PA=="
)


def _phi(n):
    """Euler's totient (n below 2**14 here: trial division is enough)."""
    result, p = n, 2
    while p * p <= n:
        if n % p == 0:
            while n % p == 0:
                n //= p
            result -= result // p
        p += 1
    return result - result // n if n > 1 else result


@functools.lru_cache(maxsize=None)
def rows():
    """((s, a, (m_1, ..., m_s)), ...) for dimensions 2..DIMENSIONS."""
    raw = base64.b64decode("".join(_BITS))
    bits = int.from_bytes(raw, "little")
    pos = 0

    def take(n):
        nonlocal pos
        value = (bits >> pos) & ((1 << n) - 1)
        pos += n
        return value

    out = []
    s = 0
    while len(out) < DIMENSIONS - 1:
        s += 1
        for _ in range(min(_phi(2 ** s - 1) // s, DIMENSIONS - 1 - len(out))):
            a = take(s - 1)
            m = tuple((take(k - 1) << 1) | 1 for k in range(1, s + 1))
            out.append((s, a, m))
    return tuple(out)
